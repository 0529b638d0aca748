"""The survey builder: its form as a definition, its errors in words, its pages."""
