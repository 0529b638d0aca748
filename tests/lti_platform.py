"""A learning platform for the LTI tests: small, offline, and following LTI 1.3 as a platform must.

It makes its own RSA keys when it starts, serves its key set on 127.0.0.1 (a thread of
http.server), and answers the tool's login redirect as an OpenID Connect authorization endpoint
does: it checks the request (scope, response type and mode, prompt, client id, redirect URI,
login hint) and signs an ``id_token`` carrying the tool's nonce, which the browser then posts to
the tool with the state. It can rotate its keys, and each test can spoil one part of a launch
(``claims`` overrides, a key outside the set, another ``kid``) to see the tool refuse it.

For a browser it serves a course page whose link starts the tool's login, an authorization
endpoint whose page posts the signed ``id_token`` to the tool at once (as platforms do), and a
deep linking return that verifies the tool's answer against the tool's key set.

No recorded token and no switched-off check: every token is made and signed here, now.
"""

from __future__ import annotations

import html
import json
import secrets
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit
from urllib.request import urlopen

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
CLIENT_ID = "survey-tool-client"
DEPLOYMENT_ID = "deployment-1"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class SigningKey:
    kid: str
    key: rsa.RSAPrivateKey = field(default_factory=new_key)

    def jwk(self) -> dict:
        public = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return public | {"kid": self.kid, "alg": "RS256", "use": "sig"}


class Platform:
    """The platform: its keys, its key set served on loopback, its authorization endpoint."""

    def __init__(self) -> None:
        self.keys = [SigningKey(f"platform-key-{secrets.token_hex(4)}")]
        self.key_set_fetches = 0
        platform = self

        class Pages(BaseHTTPRequestHandler):
            """The key set; and, for a browser, the course page, the authorization endpoint and
            the deep linking return (browser_pages)."""

            def do_GET(self):  # noqa: N802 (http.server's name)
                parts = urlsplit(self.path)
                if parts.path == "/jwks":
                    platform.key_set_fetches += 1
                    body = {"keys": [key.jwk() for key in platform.keys]}
                    self.answer(200, json.dumps(body), "application/json")
                elif parts.path in ("/course", "/auth"):
                    query = {name: values[0] for name, values in parse_qs(parts.query).items()}
                    page = platform.browser_page(parts.path, query)
                    if page is None:
                        self.send_error(400)
                    else:
                        self.answer(*page)
                else:
                    self.send_error(404)

            def do_POST(self):  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length", "0"))
                form = parse_qs(self.rfile.read(length).decode("ascii"))
                if urlsplit(self.path).path != "/deep-link-return" or "JWT" not in form:
                    self.send_error(404)
                    return
                self.answer(*platform.return_page(form["JWT"][0]))

            def answer(self, status: int, text: str, kind: str = "text/html") -> None:
                body = text.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.issuer = self.base
        #: Its authorization endpoint (a test that serves the course's pages elsewhere moves it).
        self.auth_url = f"{self.base}/auth"
        #: What the tool's last login sent to the authorization endpoint.
        self.last_authorization: dict | None = None
        #: For a browser: the tool's address, the course's users by login hint (their claims),
        #: and the deep linking answers received and verified (their claims).
        self.tool_base = ""
        self.users: dict[str, dict] = {}
        self.deep_links: list[dict] = []
        #: How the return endpoint trusts the tool's HTTPS (a test's own certificate), if any.
        self.tool_tls: ssl.SSLContext | None = None

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def urls(self) -> dict[str, str]:
        return {
            "auth_url": self.auth_url,
            "token_url": f"{self.base}/token",
            "jwks_url": f"{self.base}/jwks",
        }

    def rotate(self) -> SigningKey:
        """A new key, first in the set; the old one stays in it (platforms overlap keys)."""
        self.keys.insert(0, SigningKey(f"platform-key-{secrets.token_hex(4)}"))
        return self.keys[0]

    def authorize(self, location: str, redirect_uri: str, login_hint: str) -> dict[str, str]:
        """Check the tool's redirect to the authorization endpoint as a platform must; the
        query's values (one each)."""
        parts = urlsplit(location)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == self.urls["auth_url"], location
        query = {name: values[0] for name, values in parse_qs(parts.query).items()}
        assert all(len(values) == 1 for values in parse_qs(parts.query).values())
        assert query["scope"] == "openid"
        assert query["response_type"] == "id_token"
        assert query["response_mode"] == "form_post"
        assert query["prompt"] == "none"
        assert query["client_id"] == CLIENT_ID
        assert query["redirect_uri"] == redirect_uri
        assert query["login_hint"] == login_hint
        assert len(query["state"]) >= 32 and len(query["nonce"]) >= 32
        self.last_authorization = query
        return query

    def id_token(
        self,
        nonce: str,
        claims: dict | None = None,
        key: SigningKey | None = None,
        kid: str | None = None,
        drop: tuple[str, ...] = (),
    ) -> str:
        """A launch's id_token for ``nonce``, signed by ``key`` (the set's first) under ``kid``
        (the key's), with ``claims`` over the usual ones and ``drop`` taken out."""
        now = int(time.time())
        body = {
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "azp": CLIENT_ID,
            "sub": f"user-{secrets.token_hex(8)}",
            "exp": now + 300,
            "iat": now,
            "nonce": nonce,
            "name": "Ada Lovelace",
            "email": "ada@example.edu",
            CLAIM + "deployment_id": DEPLOYMENT_ID,
            CLAIM + "message_type": "LtiResourceLinkRequest",
            CLAIM + "version": "1.3.0",
            CLAIM + "roles": [LEARNER],
            CLAIM + "target_link_uri": "http://localhost/lti/launch",
            CLAIM + "resource_link": {"id": "link-1"},
            CLAIM + "context": {"id": "course-1", "title": "Ethics 101"},
        } | (claims or {})
        for name in drop:
            body.pop(name, None)
        signer = key or self.keys[0]
        return jwt.encode(body, signer.key, algorithm="RS256", headers={"kid": kid or signer.kid})

    def deep_linking_request(
        self,
        nonce: str,
        roles: list[str],
        data: str = "opaque-42",
        claims: dict | None = None,
        drop: tuple[str, ...] = (),
    ) -> str:
        """A deep linking request's id_token: where to return, and the data to send back (with
        ``claims`` over the usual ones, and ``drop`` taken out)."""
        return self.id_token(
            nonce,
            {
                CLAIM + "message_type": "LtiDeepLinkingRequest",
                CLAIM + "roles": roles,
                "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": {
                    "deep_link_return_url": f"{self.base}/deep-link-return",
                    "accept_types": ["ltiResourceLink"],
                    "accept_presentation_document_targets": ["iframe", "window"],
                    "data": data,
                },
            }
            | (claims or {}),
            drop=(CLAIM + "resource_link", *drop),
        )

    def data_privacy_request(self, nonce: str, roles: list[str]) -> str:
        """A data privacy launch's id_token (LTI Data Privacy Launch 1.0): no resource link."""
        return self.id_token(
            nonce,
            {CLAIM + "message_type": "LtiDataPrivacyLaunchRequest", CLAIM + "roles": roles},
            drop=(CLAIM + "resource_link",),
        )

    def receive_deep_link(self, response_jwt: str, tool_key_set: dict) -> dict:
        """The return endpoint: the tool's answer verified against the tool's key set (its
        kid), for this platform (aud) from the tool's client id (iss); its claims."""
        header = jwt.get_unverified_header(response_jwt)
        (jwk,) = [key for key in tool_key_set["keys"] if key["kid"] == header["kid"]]
        public = RSAAlgorithm.from_jwk(jwk)
        return jwt.decode(
            response_jwt,
            public,
            algorithms=["RS256"],
            audience=self.issuer,
            issuer=CLIENT_ID,
            options={"require": ["exp", "iat", "iss", "aud", "nonce"]},
        )

    # ----------------------------------------------------------------- for a browser

    def course_url(self, user: str, survey: str | None = None) -> str:
        """The course page ``user`` (a key of ``users``) opens: a link that launches the tool
        (a resource link naming ``survey``, or deep linking when None)."""
        return f"{self.base}/course?user={user}&survey={survey or ''}"

    def browser_page(self, path: str, query: dict[str, str]) -> tuple[int, str] | None:
        """The course page (its link starts the tool's login, as a platform's third-party
        login initiation does), or the authorization endpoint: the login request checked, then a
        page that posts the signed id_token to the tool at once. None when a check fails."""
        if path == "/course":
            login = urlencode(
                {
                    "iss": self.issuer,
                    "login_hint": query.get("user", ""),
                    "target_link_uri": f"{self.tool_base}/lti/launch",
                    "lti_message_hint": query.get("survey", ""),
                    "client_id": CLIENT_ID,
                    "lti_deployment_id": DEPLOYMENT_ID,
                }
            )
            link = f'<a id="open-tool" href="{self.tool_base}/lti/login?{html.escape(login)}">'
            return 200, f"<!doctype html><title>Ethics 101</title>{link}Class survey</a>"
        user = self.users.get(query.get("login_hint", ""))
        redirect_uri = f"{self.tool_base}/lti/launch"
        expected = {
            "scope": "openid",
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": CLIENT_ID,
            "redirect_uri": redirect_uri,
        }
        if user is None or any(query.get(name) != value for name, value in expected.items()):
            return None
        survey = query.get("lti_message_hint")
        if survey:
            custom = {CLAIM + "custom": {"survey": survey}}
            token = self.id_token(query["nonce"], user | custom)
        else:
            token = self.deep_linking_request(query["nonce"], user[CLAIM + "roles"], claims=user)
        fields = {"id_token": token, "state": query["state"]}
        inputs = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(value)}">'
            for name, value in fields.items()
        )
        return 200, (
            f'<!doctype html><form method="post" action="{redirect_uri}">{inputs}</form>'
            "<script>document.forms[0].submit()</script>"
        )

    def return_page(self, response_jwt: str) -> tuple[int, str]:
        """The deep linking return: the tool's answer verified against its key set, fetched
        from the tool as a platform does; what it added, in the course."""
        key_set_url = f"{self.tool_base}/lti/jwks.json"
        with urlopen(key_set_url, timeout=10, context=self.tool_tls) as answer:  # noqa: S310
            tool_key_set = json.load(answer)
        claims = self.receive_deep_link(response_jwt, tool_key_set)
        self.deep_links.append(claims)
        (item,) = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
        return 200, f'<!doctype html><p id="added">Added: {html.escape(item["title"])}</p>'
