"""The one table from domain errors to HTTP statuses."""

from billing.errors import CardDeclined, ChargeNotFound

STATUS_BY_ERROR = {
    CardDeclined: 402,
    ChargeNotFound: 404,
}


def status_for(error: Exception) -> int:
    return STATUS_BY_ERROR.get(type(error), 500)
