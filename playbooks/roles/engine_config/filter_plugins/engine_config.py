"""Filters for engine-site.xml: Hadoop-style <configuration><property><name/><value/></property>."""

from xml.parsers import expat

from ansible.errors import AnsibleFilterError


class _SiteParser:
    """Collects <property> name/value pairs with expat, refusing entity declarations (as defusedxml does)."""

    def __init__(self):
        self.properties = {}
        self._path = []
        self._text = []
        self._name = self._value = None

    def start(self, tag, _attrs):
        self._path.append(tag)
        self._text = []
        if tag == "property":
            self._name = self._value = None

    def end(self, tag):
        text = "".join(self._text)
        self._path.pop()
        if tag == "name" and self._path[-1:] == ["property"]:
            self._name = text.strip()
        elif tag == "value" and self._path[-1:] == ["property"]:
            self._value = text
        elif tag == "property":
            if not self._name:
                raise AnsibleFilterError("engine-site.xml has a <property> without a <name>")
            self.properties[self._name] = self._value or ""

    def data(self, text):
        self._text.append(text)

    @staticmethod
    def entity(*_args):
        raise AnsibleFilterError("engine-site.xml must not declare entities")

    def parse(self, text):
        parser = expat.ParserCreate()
        parser.StartElementHandler = self.start
        parser.EndElementHandler = self.end
        parser.CharacterDataHandler = self.data
        parser.EntityDeclHandler = self.entity
        try:
            parser.Parse(text, True)
        except expat.ExpatError as err:
            raise AnsibleFilterError(f"not a valid engine-site.xml: {err}") from err
        return self.properties


def engine_config_parse_site(text):
    """The name -> value pairs of an engine-site.xml (or profile) document, in file order."""
    return _SiteParser().parse(text)


def engine_config_stringify(overrides):
    """Override values as the strings the XML carries; booleans as true/false, not Python's True."""
    result = {}
    for name, value in (overrides or {}).items():
        if isinstance(value, bool):
            result[str(name)] = "true" if value else "false"
        else:
            result[str(name)] = str(value)
    return result


class FilterModule:
    """engine-site.xml filters."""

    def filters(self):
        return {
            "engine_config_parse_site": engine_config_parse_site,
            "engine_config_stringify": engine_config_stringify,
        }
