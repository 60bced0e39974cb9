s/count = 3, /count = 6, /
