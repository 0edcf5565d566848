"""Hidden test of the `parse-amount` task: copied into a clean copy of the agent's work, never shown."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from billing.money import Money, parse_amount  # noqa: E402


class ParseAmountTest(unittest.TestCase):
    def test_gives_integer_minor_units(self) -> None:
        self.assertEqual(parse_amount("19.99", "EUR"), Money(1999, "EUR"))

    def test_keeps_every_cent(self) -> None:
        amount = parse_amount("0.10", "EUR")
        self.assertIsInstance(amount.amount_minor, int)
        self.assertEqual(amount.amount_minor, 10)

    def test_refuses_what_is_no_amount(self) -> None:
        with self.assertRaises(ValueError):
            parse_amount("ten euros", "EUR")


if __name__ == "__main__":
    unittest.main()
