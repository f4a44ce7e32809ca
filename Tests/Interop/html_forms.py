"""HTML forms as the python clients under test read them: every <form> with its action, method
and fields (input, button, select, textarea), from the standard library's html.parser. Shared by
samlh_requests_client.py and replay_requests_client.py (imported from beside them)."""
from html.parser import HTMLParser


class FormParser(HTMLParser):
    """The page's <form>s: action, method and their fields (input, button, select, textarea)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self._form = None
        self._textarea = None
        self._select = None

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self._form = {"action": a.get("action"), "method": (a.get("method") or "get").lower(), "fields": []}
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag == "input":
            self._form["fields"].append({"name": a.get("name"), "type": (a.get("type") or "text").lower(),
                                         "value": a.get("value", ""), "checked": "checked" in a,
                                         "autocomplete": a.get("autocomplete", "")})
        elif tag == "button":
            self._form["fields"].append({"name": a.get("name"), "type": "button-" + (a.get("type") or "submit").lower(),
                                         "value": a.get("value", "")})
        elif tag == "textarea":
            self._textarea = {"name": a.get("name"), "type": "textarea", "value": ""}
            self._form["fields"].append(self._textarea)
        elif tag == "select":
            self._select = {"name": a.get("name"), "type": "select", "value": None}
            self._form["fields"].append(self._select)
        elif tag == "option" and self._select is not None:
            if self._select["value"] is None or "selected" in a:
                self._select["value"] = a.get("value", "")

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea["value"] += data


def forms_of(html):
    parser = FormParser()
    try:
        parser.feed(html)
    except Exception:  # noqa: BLE001 - a page html.parser chokes on has no forms we can use
        return parser.forms
    return parser.forms
