"""A schema-only Terraform provider: answers tfplugin5 from a schema made by `schema.py`.

Terraform starts it as `terraform-provider-NAME` (a launcher written by `gate.py`, found through
`dev_overrides` in the CLI configuration). It does the go-plugin handshake (one line on stdout
naming the gRPC address) and serves `tfplugin5.Provider` with what `terraform validate` and
`terraform test` with `mock_provider` ask of a provider: the schema, and config validation, which
accepts whatever conforms to the schema (Terraform itself checks the config against the schema;
value rules that only the real provider knows are not checked). Anything that would touch Google
Cloud (Configure, ReadResource, PlanResourceChange, ...) answers UNIMPLEMENTED, so an accidental
real plan fails loudly instead of pretending. Never deployed (decision 0032).
"""

from __future__ import annotations

import base64
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent import futures
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from devtools.tfprovider import tfplugin5_pb2 as pb

# go-plugin's handshake: Terraform sets this cookie for the plugins it starts.
MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE"
MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"
CORE_PROTOCOL_VERSION = 1
APP_PROTOCOL_VERSION = 5
HEALTH_SERVING = b"\x08\x01"  # grpc.health.v1.HealthCheckResponse{status: SERVING}
SHARED_KEY = "TFPROVIDER_SHARED"


def _identity(data: bytes) -> bytes:
    return data


def _unary(
    fn: Callable[[Any, grpc.ServicerContext], Any], request: Any, response: Any
) -> grpc.RpcMethodHandler:
    return grpc.unary_unary_rpc_method_handler(
        fn,
        request_deserializer=request.FromString if request is not None else _identity,
        response_serializer=response.SerializeToString if response is not None else _identity,
    )


def provider_handlers(schema: bytes) -> grpc.GenericRpcHandler:
    """The tfplugin5.Provider methods that validation and mocked plans use."""

    def get_schema(_req: Any, _ctx: grpc.ServicerContext) -> bytes:
        return schema  # a serialized GetProviderSchema.Response, sent as is

    def prepare_provider_config(
        req: pb.PrepareProviderConfig.Request, _ctx: grpc.ServicerContext
    ) -> pb.PrepareProviderConfig.Response:
        return pb.PrepareProviderConfig.Response(prepared_config=req.config)

    def accept(response: Any) -> Callable[[Any, grpc.ServicerContext], Any]:
        return lambda _req, _ctx: response()

    handlers = {
        "GetSchema": _unary(get_schema, pb.GetProviderSchema.Request, None),
        "PrepareProviderConfig": _unary(
            prepare_provider_config,
            pb.PrepareProviderConfig.Request,
            pb.PrepareProviderConfig.Response,
        ),
        "ValidateResourceTypeConfig": _unary(
            accept(pb.ValidateResourceTypeConfig.Response),
            pb.ValidateResourceTypeConfig.Request,
            pb.ValidateResourceTypeConfig.Response,
        ),
        "ValidateDataSourceConfig": _unary(
            accept(pb.ValidateDataSourceConfig.Response),
            pb.ValidateDataSourceConfig.Request,
            pb.ValidateDataSourceConfig.Response,
        ),
        "ValidateEphemeralResourceConfig": _unary(
            accept(pb.ValidateEphemeralResourceConfig.Response),
            pb.ValidateEphemeralResourceConfig.Request,
            pb.ValidateEphemeralResourceConfig.Response,
        ),
        "GetFunctions": _unary(
            accept(pb.GetFunctions.Response), pb.GetFunctions.Request, pb.GetFunctions.Response
        ),
        "Stop": _unary(accept(pb.Stop.Response), pb.Stop.Request, pb.Stop.Response),
    }
    return grpc.method_handlers_generic_handler("tfplugin5.Provider", handlers)


def tls() -> tuple[grpc.ServerCredentials, str]:
    """go-plugin's automatic TLS: Terraform passes its client certificate in PLUGIN_CLIENT_CERT
    (which tells the plugin to use TLS) and trusts the self-signed server certificate sent in
    the handshake line (base64 DER, no padding) for the name "localhost"."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=True,
                data_encipherment=False,
                key_agreement=True,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    # The client's certificate is not checked: go-plugin makes it with a P-521 key, which the
    # TLS library of grpcio does not accept for client authentication; the server listens on
    # the loopback address only, and Terraform checks the server's certificate.
    credentials = grpc.ssl_server_credentials(
        [(key_pem, cert.public_bytes(serialization.Encoding.PEM))], require_client_auth=False
    )
    der = base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode().rstrip("=")
    return credentials, der


def serve(schema_file: Path) -> None:
    if os.environ.get(MAGIC_COOKIE_KEY) != MAGIC_COOKIE_VALUE:
        sys.stderr.write("This is a Terraform provider plugin: Terraform starts it, not you.\n")
        raise SystemExit(1)
    done = threading.Event()

    # Started by gate.py and shared by every Terraform command (TF_REATTACH_PROVIDERS): only
    # the gate stops it (SIGTERM), not the end of one command.
    shared = os.environ.get(SHARED_KEY) == "1"

    def shutdown(_req: bytes, _ctx: grpc.ServicerContext) -> bytes:
        if not shared:
            done.set()
        return b""

    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4),
        options=[("grpc.max_send_message_length", 256 << 20)],
    )
    server.add_generic_rpc_handlers(
        (
            provider_handlers(schema_file.read_bytes()),
            grpc.method_handlers_generic_handler(
                "grpc.health.v1.Health",
                {"Check": _unary(lambda _r, _c: HEALTH_SERVING, None, None)},
            ),
            grpc.method_handlers_generic_handler(
                "plugin.GRPCController", {"Shutdown": _unary(shutdown, None, None)}
            ),
        )
    )
    line = f"{CORE_PROTOCOL_VERSION}|{APP_PROTOCOL_VERSION}|tcp|127.0.0.1:%d|grpc"
    if os.environ.get("PLUGIN_CLIENT_CERT"):
        credentials, server_cert = tls()
        port = server.add_secure_port("127.0.0.1:0", credentials)
        line += "|" + server_cert
    else:
        port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    line = line % port + "\n"
    sys.stdout.write(line)
    sys.stdout.flush()
    signal.signal(signal.SIGTERM, lambda _sig, _frame: done.set())
    done.wait()
    server.stop(grace=0.5)


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
