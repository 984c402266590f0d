// placeholder: written in the foundation work
