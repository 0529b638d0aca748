"""What respondents meet: the pages they answer, the submission path, the class's results."""
