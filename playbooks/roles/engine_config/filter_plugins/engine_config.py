"""Filters for engine-site.xml: Hadoop-style <configuration><property><name/><value/></property>."""

import xml.etree.ElementTree as ET

from ansible.errors import AnsibleFilterError


def engine_config_parse_site(text):
    """The name -> value pairs of an engine-site.xml (or profile) document, in file order."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as err:
        raise AnsibleFilterError(f"not a valid engine-site.xml: {err}") from err
    properties = {}
    for prop in root.iter("property"):
        name = (prop.findtext("name") or "").strip()
        if not name:
            raise AnsibleFilterError("engine-site.xml has a <property> without a <name>")
        properties[name] = prop.findtext("value") or ""
    return properties


def engine_config_stringify(overrides):
    """Override values as the strings the XML carries; booleans as true/false, not Python's True."""
    result = {}
    for name, value in (overrides or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        result[str(name)] = str(value)
    return result


class FilterModule:
    """engine-site.xml filters."""

    def filters(self):
        return {
            "engine_config_parse_site": engine_config_parse_site,
            "engine_config_stringify": engine_config_stringify,
        }
