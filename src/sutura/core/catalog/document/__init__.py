"""One catalog document as written: front matter split and read with line marks, the shape of
each kind (every leaf text), and its values built, each problem naming file, line and key."""
