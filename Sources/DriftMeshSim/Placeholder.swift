// Placeholder: the mesh simulator lands here.
