"""The run contract's values (docs/running-clients.md) as a dict with attribute access."""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional


class ClientEnv(dict):
    """The `SAMLH_*` variables a client gets, keyed by their full names.

    `env["SAMLH_START_URL"]` and `env.start_url` are the same value; an attribute for a variable
    the scenario does not set is None (`env.second_factor_code`, `env.ca_file`…). `timeout` and
    `request_timeout` are numbers (seconds); everything else is the string the variable holds.
    """

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.get("SAMLH_" + name.upper())

    @property
    def timeout(self) -> Optional[float]:
        value = self.get("SAMLH_TIMEOUT")
        return float(value) if value else None

    @property
    def request_timeout(self) -> float:
        """Seconds to wait for one answer (10 unless the scenario or the time scale says otherwise)."""
        return float(self.get("SAMLH_REQUEST_TIMEOUT") or 10)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> "ClientEnv":
        keep = ("KRB5_CONFIG", "KRB5CCNAME")
        return cls({k: v for k, v in environ.items() if k.startswith("SAMLH_") or k in keep})

    @classmethod
    def from_ready(cls, ready: Mapping[str, Any]) -> "ClientEnv":
        """What `samlharness run` would hand a client, from a `serve` ready line: the scenario's
        section when serve was given one, else the profile's first user at the SP's /secure."""
        scenario = ready.get("scenario")
        values: Dict[str, str] = {}
        if scenario:
            values.update({"SAMLH_SCENARIO": scenario.get("id", ""), "SAMLH_FLOW": scenario.get("flow", ""),
                           "SAMLH_START_URL": scenario.get("start", "")})
            if scenario.get("timeout") is not None:
                values["SAMLH_TIMEOUT"] = "%g" % scenario["timeout"]
            for key in ("username", "password", "second_factor_code"):
                if scenario.get(key) is not None:
                    values["SAMLH_" + key.upper()] = scenario[key]
            for key, value in (scenario.get("parameters") or {}).items():
                values["SAMLH_" + key] = value
        else:
            sp, idp, control = ready.get("sp") or {}, ready.get("idp") or {}, ready.get("control") or {}
            users = ready.get("users") or [{}]
            candidates = {
                "SAMLH_START_URL": sp.get("secure"), "SAMLH_SP_URL": sp.get("base"),
                "SAMLH_IDP_ENTITY_ID": idp.get("entity_id"), "SAMLH_SP_ENTITY_ID": sp.get("entity_id"),
                "SAMLH_CONTROL_URL": control.get("base"), "SAMLH_USERNAME": users[0].get("username"),
                "SAMLH_PASSWORD": users[0].get("password"), "SAMLH_SECOND_FACTOR_CODE": users[0].get("second_factor_code"),
                "SAMLH_REQUEST_TIMEOUT": "10",
            }
            values.update({k: v for k, v in candidates.items() if v is not None})
        return cls(values)
