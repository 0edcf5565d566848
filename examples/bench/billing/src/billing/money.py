"""Money as the billing code passes it around."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Money:
    amount_minor: int  # cents, pence, ...: the currency's smallest unit
    currency: str  # ISO 4217, e.g. "EUR"

    def __add__(self, other: Money) -> Money:
        if other.currency != self.currency:
            raise ValueError(f"cannot add {other.currency} to {self.currency}")
        return Money(self.amount_minor + other.amount_minor, self.currency)
