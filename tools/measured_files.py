"""measured_files: measured runs found and read as `cnnperf validate` finds and reads them.

validation/ keeps every cnnperf-measure result gzip-compressed (x.json as x.json.gz), so a pattern of JSON files
also takes the same names kept compressed ("*.json" finds x.json and y.json.gz), and a name ending in ".gz" is read
through gzip."""
import glob
import gzip
import json


def expand(patterns, recursive=False):
    """The sorted files the patterns name; a pattern ending in .json also takes the same names with .gz."""
    found = set()
    for p in patterns:
        found.update(glob.glob(p, recursive=recursive))
        if p.endswith(".json"):
            found.update(glob.glob(p + ".gz", recursive=recursive))
    return sorted(found)


def load(path):
    """The JSON document at path, read through gzip where its name ends in .gz."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
        return json.load(fh)
