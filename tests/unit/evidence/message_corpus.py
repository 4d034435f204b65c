"""Customer and merchant messages with the stance each takes for a dispute's reason family
(issue 44 item 2, issue 45 item 9): retractions, mixed messages, negation, quoted replies,
threads, the merchant's own replies, other languages' greetings and typos. Each entry:
(text, family, expected stance, author). `None` author: the customer (no From line)."""

from __future__ import annotations

S, C, N = "supports", "concedes", "neutral"
SHOP = "support@brightlamps.com"
ME = "ann@example.com"

CORPUS: list[tuple[str, str, str, str | None]] = [
    # -- not as described ---------------------------------------------------------------------
    (
        "The box is fine but the lamp inside arrived broken - the base is cracked in two places. "
        "I want a refund.",
        "not_as_described",
        C,
        ME,
    ),
    (
        "The lamp arrived broken. Never mind, it works fine now, the bulb was loose.",
        "not_as_described",
        S,
        ME,
    ),
    ("The board is fine, I just changed my mind.", "not_as_described", S, ME),
    (
        "I haven't changed my mind, the deck is still cracked and I want my money back.",
        "not_as_described",
        C,
        ME,
    ),
    (
        "I did NOT say it arrived broken. I said I changed my mind and want to return it.",
        "not_as_described",
        S,
        ME,
    ),
    ("The deck arrived cracked down the middle. I want my money back.", "not_as_described", C, ME),
    ("Love the lamp, it looks great in the living room!", "not_as_described", S, ME),
    ("It's the wrong colour, I ordered blue and got green.", "not_as_described", C, ME),
    ("The packaging was damaged but the lamp itself works perfectly.", "not_as_described", S, ME),
    ("Hola! The lamp is perfect, gracias.", "not_as_described", S, ME),
    ("Bonjour, la lampe est arrivée cassée.", "not_as_described", C, ME),
    ("the lamp is brokn and the shade is torn", "not_as_described", C, ME),
    ("Nothing wrong with it really, I just don't need it anymore.", "not_as_described", S, ME),
    ("It stopped working after two days.", "not_as_described", C, ME),
    ("Can I swap it for the blue one?", "not_as_described", N, ME),
    ("Glad you like it! Let us know if anything else comes up.", "not_as_described", N, SHOP),
    (
        "Thanks for reaching out. We are sorry the lamp arrived damaged.",
        "not_as_described",
        N,
        SHOP,
    ),
    (
        "It works fine now, thanks for the help.\n\nOn Mon, 5 Oct 2026 at 10:02, Bright Lamps "
        "<support@brightlamps.com> wrote:\n> Sorry to hear the lamp arrived broken.",
        "not_as_described",
        S,
        ME,
    ),
    (
        "Still broken.\n\nOn 6 Oct 2026, support@brightlamps.com wrote: Glad it works now!",
        "not_as_described",
        C,
        ME,
    ),
    ("I'm not happy with the quality, it feels cheap.", "not_as_described", C, ME),
    ("The lamp is great but the shade arrived torn.", "not_as_described", C, ME),
    ("It isn't broken, I just don't like the colour.", "not_as_described", S, ME),
    # -- not received ---------------------------------------------------------------------------
    ("Your tracking claims the parcel arrived on Monday. It did not.", "not_received", C, ME),
    ("Thanks, the deck came yesterday.", "not_received", S, ME),
    ("It never arrived, where is my order?", "not_received", C, ME),
    ("i recieved it, thx", "not_received", S, ME),
    ("Hola, my package never arrived.", "not_received", C, ME),
    ("Bonjour, je n'ai pas reçu ma commande.", "not_received", C, ME),
    ("Still waiting for my order, it's been three weeks.", "not_received", C, ME),
    ("Sorry, false alarm - it turned up at my neighbour's.", "not_received", S, ME),
    ("The parcel hasn't arrived. Oh wait, it just arrived, my son had it.", "not_received", S, ME),
    ("The website says delivered but I never got it.", "not_received", C, ME),
    ("Glad it arrived! Enjoy your new deck.", "not_received", N, SHOP),
    (
        "We can see the parcel was delivered on 6 October and signed by A. Smith.",
        "not_received",
        N,
        "Bright Lamps Support <help@brightlamps.com>",
    ),
    ("Got it today, looks great.", "not_received", S, ME),
    ("Where is my package?? Nothing has arrived.", "not_received", C, ME),
    ("Found it, it was in the garage. Please ignore my last email.", "not_received", S, ME),
    ("The box arrived broken and the lamp inside is cracked.", "not_received", S, ME),
    ("What is your returns address?", "not_received", N, ME),
    (
        "It has not arrived yet.\n> On 3 Oct you wrote: your order has shipped",
        "not_received",
        C,
        ME,
    ),
    # -- fraud ----------------------------------------------------------------------------------
    ("I didn't order this, someone used my card.", "fraud", C, ME),
    ("I didn't order this. Oh wait, my husband ordered it for my birthday, sorry!", "fraud", S, ME),
    ("I don't recognise this charge.", "fraud", C, ME),
    ("My daughter must have ordered it with my card, I remember now.", "fraud", S, ME),
    ("Love the deck, thanks!", "fraud", S, ME),
    ("This was an unauthorised purchase, my card was stolen.", "fraud", C, ME),
    ("Hi, can you change the delivery address on my order?", "fraud", N, ME),
    (
        "We have cancelled nothing; your order shipped on 2 October.",
        "fraud",
        N,
        "orders@brightlamps.com",
    ),
    ("no lo pedí, no reconozco este cargo", "fraud", C, ME),
    # -- credit not processed -------------------------------------------------------------------
    (
        "I sent the deck back on October 10. When will I get my refund?",
        "credit_not_processed",
        C,
        ME,
    ),
    ("I got my refund today, thank you!", "credit_not_processed", S, ME),
    ("I haven't received my refund yet.", "credit_not_processed", C, ME),
    ("Where is my refund? I returned it two weeks ago.", "credit_not_processed", C, ME),
    ("Never mind, the refund came through this morning.", "credit_not_processed", S, ME),
    ("I never sent it back, I decided to keep it.", "credit_not_processed", S, ME),
    ("We refunded 89.00 USD on 3 October.", "credit_not_processed", N, SHOP),
    ("Thanks for the quick reply.", "credit_not_processed", N, ME),
    # -- subscription ---------------------------------------------------------------------------
    ("Please cancel my subscription before the next box.", "subscription_canceled", C, ME),
    ("I forgot to cancel, can you refund the last month?", "subscription_canceled", S, ME),
    ("I never cancelled, I just want a discount.", "subscription_canceled", S, ME),
    ("Please keep my subscription going, I love the boxes.", "subscription_canceled", S, ME),
    ("Your subscription renews on 1 November.", "subscription_canceled", N, "team@brightlamps.com"),
    ("What time does support open?", "subscription_canceled", N, ME),
    # -- general --------------------------------------------------------------------------------
    ("Got it, works great!", "general", S, ME),
    ("It still hasn't come.", "general", C, ME),
    ("Hola, ¿cuándo abren la tienda?", "general", N, ME),
]
