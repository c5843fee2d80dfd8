"""Every error the service raises has a Connect code, with the HTTP status that REST
gives it too."""

from __future__ import annotations

from service.api.connect import HTTP_STATUS, ConnectFailure
from service.app.model.errors import Code, ServiceError


def test_every_service_error_code_is_a_connect_code_with_the_same_http_status() -> None:
    for code in Code:
        failure = ConnectFailure.of(ServiceError(code, "boom"))
        assert failure.code in HTTP_STATUS, code
        assert failure.response().status == code.http_status, code
