"""The tool's signing key: an RSA key made at first use and kept like the secret key (an
owner-only file in the instance folder), or given whole in ``SURVEY_APP_LTI_PRIVATE_KEY`` (PEM),
as several servers must share it. Its public half is the tool's key set (``/lti/jwks.json``),
named by its RFC 7638 thumbprint, which platforms fetch to check what the tool signs."""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import secrets
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

#: The key's file in the instance folder.
KEY_FILE = "lti_private_key.pem"
#: RSA modulus size: 2048 bits, what LTI platforms expect of RS256 keys.
KEY_BITS = 2048


def _new_key_pem() -> bytes:
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@functools.lru_cache(maxsize=4)
def instance_key_pem(instance_path: str) -> bytes:
    """The key kept in the instance folder, made (readable by its owner only) at first use;
    read once a process (the file is never replaced once made)."""
    path = Path(instance_path) / KEY_FILE
    if path.exists():
        return path.read_bytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written whole to a file of its own, then linked into place: when several workers start
    # at once one link wins, and no worker ever reads a key file half written.
    draft = path.with_name(f"{KEY_FILE}.{secrets.token_hex(8)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(_new_key_pem())
    try:
        os.link(draft, path)
    except FileExistsError:
        pass
    finally:
        draft.unlink()
    return path.read_bytes()


@functools.lru_cache(maxsize=4)
def _loaded(pem: bytes) -> rsa.RSAPrivateKey:
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, rsa.RSAPrivateKey) or key.key_size < KEY_BITS:
        raise ValueError(f"the LTI key must be an RSA key of at least {KEY_BITS} bits")
    return key


def tool_key(config: dict, instance_path: str) -> rsa.RSAPrivateKey:
    """The tool's private key: the setting's, else the instance folder's."""
    pem = config.get("LTI_PRIVATE_KEY")
    return _loaded(pem.encode("ascii") if pem else instance_key_pem(instance_path))


def public_jwk(key: rsa.RSAPrivateKey) -> dict:
    """The public half as a JSON Web Key for RS256 signatures, ``kid`` its thumbprint."""
    jwk = RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    # RFC 7638: the SHA-256 of the required members, in lexical order, without spaces.
    required = json.dumps({name: jwk[name] for name in ("e", "kty", "n")}, separators=(",", ":"))
    digest = hashlib.sha256(required.encode("ascii")).digest()
    kid = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    return jwk | {"kid": kid, "alg": "RS256", "use": "sig"}
