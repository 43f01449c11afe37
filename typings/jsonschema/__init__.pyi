# The part of jsonschema (untyped) that sutura's tests use, checked against jsonschema 4.26:
# checking a schema and validating an instance against it (or asking whether it is valid).
from jsonschema.exceptions import ValidationError as ValidationError
from jsonschema.validators import Draft202012Validator as Draft202012Validator
from jsonschema.validators import validate as validate
