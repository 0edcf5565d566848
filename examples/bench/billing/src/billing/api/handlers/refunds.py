"""POST /refunds: refund part or all of a charge."""

from billing.errors import ChargeNotFound
from billing.money import Money

CHARGES = {"ch_1": Money(5000, "EUR")}


def create_refund(charge_id: str, amount: Money) -> dict[str, object]:
    charge = CHARGES.get(charge_id)
    if charge is None:
        raise ChargeNotFound(charge_id)
    return {"charge": charge_id, "refunded_minor": amount.amount_minor, "currency": amount.currency}
