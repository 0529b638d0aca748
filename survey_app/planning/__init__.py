"""Planning: what a class of a given size will learn, in shares and in a question's unit."""
