"""Reading the settings layers: strict YAML files, environment variables, merging, validation."""
