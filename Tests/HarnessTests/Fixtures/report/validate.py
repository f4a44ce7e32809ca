"""Validates a report file against a schema, for Tests/HarnessTests/Report*Tests.swift.

    python validate.py json SCHEMA.json DOCUMENT.json   (JSON Schema: the draft the schema names)
    python validate.py xsd  SCHEMA.xsd  DOCUMENT.xml    (XML Schema 1.0)

Prints `valid` and exits 0, or prints each error (path: message) and exits 1. Runs in the
venv of scripts/setup-report-tools.sh (pinned jsonschema and xmlschema).
"""
import json
import sys


def main(kind, schema_path, document_path):
    if kind == "json":
        import jsonschema
        with open(schema_path, encoding="utf-8") as f:
            schema = json.load(f)
        with open(document_path, encoding="utf-8") as f:
            document = json.load(f)
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
        errors = [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
                  for e in validator_class(schema).iter_errors(document)]
    elif kind == "xsd":
        import xmlschema
        schema = xmlschema.XMLSchema10(schema_path)
        errors = [f"{e.path}: {e.reason}" for e in schema.iter_errors(document_path)]
    else:
        print(f"unknown kind {kind!r}: json or xsd", file=sys.stderr)
        return 2
    for error in errors[:20]:
        print(error[:500])
    if errors:
        print(f"{len(errors)} error(s) in {document_path}")
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
