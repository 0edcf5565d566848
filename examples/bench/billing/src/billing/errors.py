"""Domain errors: raised by services and handlers, turned into responses in billing.api.errors."""


class BillingError(Exception):
    """Every domain error of billing."""


class CardDeclined(BillingError):
    """The card issuer declined the charge."""


class ChargeNotFound(BillingError):
    """No charge has the id given."""
