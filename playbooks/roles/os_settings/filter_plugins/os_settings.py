"""Filters of the os_settings role: parse what the host reported, compare it with the wanted settings."""

AT_LEAST = {"net.core.somaxconn"}


def _value(text):
    """An int when the value is one; the selected word of a sysfs choice ("always [madvise] never")."""
    text = text.strip()
    if "[" in text and "]" in text:
        return text.split("[", 1)[1].split("]", 1)[0]
    if text.lstrip("-").isdigit():
        return int(text)
    if text == "unlimited":
        return text
    return text or None


def os_settings_parse(lines, keys=None):
    """key=value lines (os_settings_read_script) to a dict; an unreadable value becomes None. With
    ``keys``, lines of other keys (anything else the host printed) are ignored."""
    settings = {}
    for line in lines or []:
        key, sep, value = str(line).partition("=")
        if sep and (keys is None or key.strip() in keys):
            settings[key.strip()] = _value(value)
    return settings


def os_settings_differences(current, wanted):
    """The keys of wanted whose current value differs, sorted.

    Limits (open files, the accept backlog) count as met when the current value is at least the wanted one.
    """
    differs = []
    for key, want in (wanted or {}).items():
        have = (current or {}).get(key)
        if key.startswith("nofile.") or key in AT_LEAST:
            ok = have == "unlimited" or (isinstance(have, int) and have >= int(want))
        else:
            ok = str(have) == str(want)
        if not ok:
            differs.append(key)
    return sorted(differs)


class FilterModule:
    """os_settings filters."""

    def filters(self):
        return {
            "os_settings_parse": os_settings_parse,
            "os_settings_differences": os_settings_differences,
        }
