"""Small shared pieces: paths, errors, run directories, artifacts, seeding. Imports nothing heavy."""
