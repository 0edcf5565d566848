// The cart page on the legacy router.
export const CartPage = () => <main id="cart">Your cart</main>;
