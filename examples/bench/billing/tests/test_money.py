import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from billing.money import Money  # noqa: E402


class MoneyTest(unittest.TestCase):
    def test_adds_in_one_currency(self) -> None:
        self.assertEqual(Money(1999, "EUR") + Money(1, "EUR"), Money(2000, "EUR"))

    def test_refuses_to_add_two_currencies(self) -> None:
        with self.assertRaises(ValueError):
            Money(1, "EUR") + Money(1, "USD")


if __name__ == "__main__":
    unittest.main()
