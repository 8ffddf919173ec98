"""profile_section: replace one top-level section of a device profile
(devices/<id>.json) in place, keeping the rest of the file as it is laid
out; shared by tools/eager_profile.py and tools/legacy_host_profile.py. write_json: a whole calibration
file rewritten through a temporary file, for tools/fit_eager_terms.py and fit_eager_pool.py."""
import json
import os
import sys


def replace_section(path, key, section, order=None):
    """The profile's "key": {...} replaced textually (added before the closing brace if absent), one entry
    per line in `order` (default: the section's own), written through a temporary file and a rename."""
    with open(path) as fh:
        text = fh.read()
    keys = [k for k in (order or section) if k in section]
    body = ",\n".join(f'    "{k}": {json.dumps(section[k])}' for k in keys)
    block = f'"{key}": {{\n{body}\n  }}'
    start = text.find(f'"{key}": {{')
    if start >= 0:
        depth, end = 0, -1
        for i in range(start + len(f'"{key}": '), len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                end = i + 1
                break
        new = text[:start] + block + text[end:]
    else:
        close = text.rstrip().rfind("}")
        new = text[:close].rstrip() + ",\n  " + block + "\n}\n"
    try:
        json.loads(new)
    except ValueError as e:
        print(f"{path}: the section would not leave one JSON document: {e}", file=sys.stderr)
        return 2
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(new)
    os.replace(tmp, path)
    return 0


def write_json(path, obj):
    """obj as path's whole content (one key a line at the top, as the calibration files are laid out),
    written through a temporary file and a rename."""
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(obj, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)
