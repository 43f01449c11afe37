"""The shared vocabulary under every other package of the core: it imports none of them."""
