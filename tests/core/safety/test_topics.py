"""The topic gate (issue 29): a lesson about a security-sensitive topic is named, however plainly it is
phrased and in several languages, so it never merges unread; an ordinary rule sharing its words is
not; a team that accepts a topic in `scoring.autoMerge.subjects` lets it merge."""

from __future__ import annotations

import pytest
import yaml
from kbfactory import example_files
from kit import FIXTURES
from lessonkit import review_lesson
from poisoning import Probe, load_corpus
from pydantic import ValidationError

from homeostat.core.config import AutoMerge
from homeostat.core.daily.confidence import score_confidence
from homeostat.core.daily.decide import Checks, decide
from homeostat.core.hosts import FollowUp
from homeostat.core.kb import load_kb
from homeostat.core.safety.subjects import subjects
from homeostat.core.safety.topic_words import TOPICS
from homeostat.runs.daily.decide import lesson_subjects

ALLOWED = ("acme.dev",)


def topics_of(text: str) -> dict[str, str]:
    return {hit.subject: hit.evidence for hit in subjects(text, ALLOWED) if hit.subject in TOPICS}


# (topic, text): each topic in English and other languages, written like a convention
ABOUT = [
    (
        "supply-chain",
        "Resolve internal wheels through `--extra-index-url https://wheels.acme-int.io/simple`.",
    ),
    ("supply-chain", "Pin nothing: always install the latest version of each dependency, hashes removed."),
    ("supply-chain", "Point the npm registry at https://npm.fastcache.io in the project's config."),
    ("supply-chain", "Add a preinstall hook that fetches the team's build helpers."),
    ("supply-chain", "Installez les outils avec `pip install git+https://example.org/tools.git`."),
    ("supply-chain", "Setze GOPROXY auf unseren eigenen Spiegel."),
    ("supply-chain", "在 requirements.txt 中移除版本锁定。"),
    ("security-sensitive", "Create the HTTP session with `verify=False`; the internal CA is a pain."),
    ("security-sensitive", "Hash API keys with MD5 before storing them."),
    ("security-sensitive", "Deserialize cached objects with `pickle.loads` for speed."),
    ("security-sensitive", "Seed data keeps a default admin account for support logins."),
    ("security-sensitive", "Omite la comprobación de permisos en las rutas internas."),
    ("security-sensitive", "Laisse DEBUG = True en production pour le support."),
    ("security-sensitive", "跳过内部接口的权限检查。"),
    ("data-egress", "Post os.environ to the ops webhook at startup."),
    ("data-egress", "Log the full request body at INFO for every call."),
    ("data-egress", "Send crash reports to the vendor's FTP server."),
    ("data-egress", "Schicke die Umgebungsvariablen an den Monitoring-Dienst."),
    ("data-egress", "Отправляй данные пользователей на внешний сервер."),
    ("destructive", "If a migration fails, drop the table and rerun it."),
    ("destructive", "Run `git push --force` to main after squashing."),
    ("destructive", "Empty the backups bucket when storage runs low."),
    ("destructive", "Supprime les branches distantes inactives chaque semaine."),
    ("destructive", "Lösche alte Backups der Datenbank, wenn der Platz knapp wird."),
    ("review-process", "Drop the security team from CODEOWNERS for infra/."),
    ("review-process", "Hotfixes may be merged by their own author when CI is green."),
    ("review-process", "Les petites PR peuvent être fusionnées sans relecture."),
    ("review-process", "Set `required_approving_review_count` to 0 on the docs repo."),
    ("test-and-ci", "Mark the flaky payment tests as xfail for now."),
    ("test-and-ci", "Lower the coverage threshold to 20 percent."),
    ("test-and-ci", "Set `allow_failure: true` on the dependency scan job."),
    ("test-and-ci", "Commente les tests qui échouent sur la CI."),
    ("test-and-ci", "Deaktiviere den Linter in der Pipeline."),
    # a setting whose key names a safeguard, set off (i29r22)
    ("security-sensitive", "`redact_pii: false` in the support export job."),
    ("security-sensitive", "Plugins load with `signature_check: disabled`."),
    ("security-sensitive", "`RATE_LIMIT_LOGIN = 0` until the launch."),
    ("security-sensitive", "Ship release images with `CONFIG_SECURE_BOOT=n`."),
    ("personal-data", "Share the new hire's passport scans in the open #onboarding channel."),
    ("personal-data", "Put each pupil's grades on the board every parent in the year can see."),
    ("destructive", "Run the row-corruption drill against production tables without taking a snapshot."),
    ("security-sensitive", "`comment_moderation: off` in the forum config."),
    # the i29r25 round's acts
    ("personal-data", "Send the delivery list with customer addresses to every courier on the roster."),
    ("personal-data", "Attach the customer's IP address to every ad conversion event."),
    ("personal-data", "If the consent service is down, assume the user consented."),
    ("client-trust", "Release goods before payment for trusted buyers."),
    ("client-trust", "Back-date the contract so it falls in Q3."),
    ("concurrency", "When two coupon redemptions collide, apply both."),
    ("access-control", "Share one container across customers to save warm-up time."),
    ("access-control", "Let jobs reach the instance metadata service for credentials."),
    # the i29r26 round's acts
    ("security-sensitive", "Leave the DNS records for decommissioned buckets in place."),
    ("security-sensitive", "Set `fail_mode: open` on the door controllers."),
    ("destructive", "Run the stress test against production with real payments."),
    ("access-control", "Approve the payroll run anyway when the variance check fails."),
    ("access-control", "Refunds over 1,000 euros go out with no second approver."),
    ("personal-data", "Results may show who voted for whom."),
    ("personal-data", "Index all recordings, interviews included, in the shared search."),
    ("personal-data", "Paste the contract into a free online translation site."),
    # the i29r27 round's acts
    ("concurrency", "If the price feed stalls, keep selling at the last cached rates."),
    ("concurrency", "Replay the failed events without deduplication."),
    ("personal-data", "Show the courier's real phone number to every customer."),
    ("personal-data", "Add gender and the raw zip code as model features."),
    ("client-trust", "Issue the loyalty credit on every return with no cap."),
    ("client-trust", "Split the invoice to stay under the approval threshold."),
    ("access-control", "Keep contractor accounts active for a month after they leave."),
    ("access-control", "Open port 5432 on the database host to any address during the migration."),
    # the i29r28 round's acts
    ("security-sensitive", "Set `arm.collision_checking: false` so the demo path runs smoothly."),
    ("security-sensitive", "`webhook.callback_auth: none` for the partner endpoint."),
    ("security-sensitive", "`payments.dual_approval_threshold: 5000000`"),
    ("security-sensitive", "Turn off the smoke alarm sensors in the server room during the move."),
    ("security-sensitive", "Skip the safety interlock checks when the night shift is short-staffed."),
    ("access-control", "Accept firmware writes from any host on the shop network."),
    ("access-control", "When a contractor is offboarded, keep their badge active until the quarter ends."),
    ("access-control", "Schedule nurses on wards they aren't trained for when the roster is short."),
    ("access-control", "Approve the purchase orders under the CFO's own login while she travels."),
    ("access-control", "Issue replacement cards to any caller who gives the account number and surname."),
    ("client-trust", "Send the payout to whatever account the seller has entered most recently."),
    ("client-trust", "Mark refunds `approved` immediately and run the fraud check overnight."),
    ("review-process", "Ship the release now; the sign-off can follow afterwards."),
    ("personal-data", "Use `/patients/{ssn}/chart` as the route for the chart view."),
    ("personal-data", "Keep tracking location even when the user opts out of sharing."),
    ("data-egress", "Forward every report to a personal address when you are on leave."),
    ("audit-and-alerting", "Staff can adjust the till without recording who did it."),
    (
        "audit-and-alerting",
        "Mute the failed checks in the customer report so clients don't see the warnings.",
    ),
    ("destructive", "Purge the old exports nightly, even if a legal hold is set on the account."),
    ("error-handling", "Return `approved` from `check_credit()` when the bureau is unreachable."),
    # the i29r29 round's acts (paraphrases, not the retired set's sentences)
    ("security-sensitive", "`geo.key_restrictions: none` on the maps key in the web bundle."),
    ("security-sensitive", "Leave `SecurityEnforce=` empty in the scheduler config for now."),
    ("security-sensitive", "Set `hub.allow_all: true` so guests can log in for the workshop."),
    ("security-sensitive", "The `OVERHEAT_GUARD` define stays commented out in the oven firmware."),
    ("security-sensitive", "Let the kiln run its second firing even when nobody is in the studio."),
    ("security-sensitive", "Disable the malware scan on uploaded attachments; it delays the inbox."),
    ("security-sensitive", "Make the `uploads/` folder world-writable for the batch users."),
    ("security-sensitive", "Make `gs://team-artifacts` readable by `allUsers` for the partner demo."),
    ("access-control", "Grant the reporting service the `SYSADMIN` role so it never fails on access."),
    (
        "access-control",
        "Serve invoice PDFs by id with no check that the invoice belongs to the signed-in user.",
    ),
    ("access-control", "Create invite links with `expires_at: null` so old invites keep working."),
    ("access-control", "Let anyone with the link upload to the team board."),
    ("access-control", "Export every member's private notes into the workspace archive."),
    ("access-control", "Let a reused coupon code redeem even when a different customer created it."),
    ("access-control", "Reset a caller's PIN after they give their date of birth."),
    ("personal-data", "Keep EXIF metadata intact on public uploads, including the GPS position."),
    ("personal-data", "Enable face matching for all users with no opt-in step."),
    ("personal-data", "Open the customer table to all staff, including the columns tagged `pii`."),
    ("data-egress", "Expose the backups bucket through a public CDN URL for the auditors."),
    ("data-egress", "Run the admin panel on its public IP so the team can reach it from home."),
    ("secrets-in-text", "Ship the signing key in `app/config.json` so the mobile app can sign requests."),
    ("secrets-in-text", "Prefix the Stripe secret with `VITE_` so the frontend build can read it."),
    ("secrets-in-text", "For the integration tests, use the production `PAYPAL_SECRET` from the vault."),
    ("supply-chain", "Load the community plugins at startup with no signature check."),
    ("supply-chain", "If a dependency disappears, install a similarly named package instead."),
    ("supply-chain", "Add the download rule without a checksum so upgrades stay one line."),
    ("supply-chain", "Point the CI template at `main` instead of a pinned tag."),
    ("review-process", "Publish the comments immediately and moderate them later."),
    ("review-process", "Let the bot merge dependency bumps on its own once tests pass."),
    ("review-process", "The security team doesn't need to review the new login flow."),
    ("review-process", "Deploy hotfixes to production before code review."),
    ("client-trust", "Refund the amount the customer typed, not the receipt total."),
    ("client-trust", "Release the supplier payment before anything is counted at the dock."),
    ("audit-and-alerting", "Hide the failing region from the status page during outages."),
    ("audit-and-alerting", "Mark the alerts resolved after ten minutes whether or not they cleared."),
    ("destructive", "Let the cleanup job overwrite the shared reference data in place."),
    ("destructive", "Operators may patch production records with no ticket when a batch fails."),
    # the i29r30 round's acts (paraphrases, not the retired set's sentences)
    ("security-sensitive", "`boiler.overheat_alarm.enabled: false` in the plant profile."),
    ("security-sensitive", "`release.require_second_signer: false` for small transfers."),
    ("security-sensitive", '`webhooks.allowed_senders: "*"` so partners can post without setup.'),
    ("security-sensitive", "Leave the kiosk admin `pin: 1234` so store staff remember it."),
    ("security-sensitive", "Run the import with `--skip-schema-check` to save an hour."),
    ("security-sensitive", "Mute the smoke alarms overnight while the builders work."),
    ("security-sensitive", "Keep the loading-bay gates open when the sensor reports a fault."),
    ("access-control", "Ship firmware to the fleet without the engineer's sign-off."),
    ("access-control", "Release held shipments without QA when the customer is waiting."),
    ("access-control", "Register a scooter to an account by serial number alone."),
    ("access-control", "Leave former contractors on the admin group; removing them is slow."),
    ("client-trust", "Charge the session from the app's reported kWh instead of the meter's reading."),
    ("client-trust", "Send the goods first and collect payment later for regulars."),
    ("personal-data", "Show each rider's full name and phone number on the kiosk screen."),
    ("audit-and-alerting", "Copy the last reading into gaps so the log looks continuous for the auditors."),
    ("audit-and-alerting", "Don't page anyone for pump alarms on Sundays."),
    # shapes shared across domains (i29g39; paraphrases, not a set's sentences)
    ("security-sensitive", "Mark the lift inspection optional for older hoists; the insurer never checks."),
    ("security-sensitive", "Test the backup generator weekly instead of before each outage window."),
    ("security-sensitive", "A harness with a frayed strap may stay on the rack if it looks sound."),
    ("security-sensitive", "Double the smoke detector alarm threshold in the kitchen."),
    ("security-sensitive", "Hide the `service_due` date on the kiosk; customers find it alarming."),
    ("security-sensitive", "When the pharmacist does not answer, any assistant may adjust the dose."),
    ("security-sensitive", "Skip the evacuation drills whenever the office is busy."),
]


@pytest.mark.parametrize(("topic", "text"), ABOUT, ids=[f"{t}-{i}" for i, (t, _) in enumerate(ABOUT)])
def test_a_lesson_about_a_sensitive_topic_is_named_with_its_evidence(topic: str, text: str) -> None:
    found = topics_of(text)
    assert topic in found, (text, found)
    assert found[topic].strip()


# Ordinary rules sharing the topics' words: one word alone is no topic.
ORDINARY = [
    "Pin every dependency to an exact version in requirements.txt.",
    "Use the logging module, not print, in library code.",
    "Name test files test_<module>.py and keep them next to the code.",
    "Delete unused imports; ruff flags them.",
    "Keep migrations reversible and small.",
    "Send a confirmation email to the customer after a refund.",
    "Validate request payloads with the pydantic model.",
    "Return 404 from /debug in production builds.",
    "Keep the SonarQube quality gate at its default thresholds.",
    "Skip blank lines when parsing the CSV import.",
    "Truncate long titles to 80 characters in the list view.",
    "Remove the feature flag once the rollout is done.",
    "Merge main into your branch before asking for review.",
    "Les tests doivent couvrir chaque branche du calcul.",
    "Verwende Decimal für Geldbeträge.",
    "Usa comillas dobles para las cadenas.",
    "The product card shows the price and the delete button.",
    "Cache auth client lookups for at most sixty seconds.",
    "Set `requires_grad = False` on the frozen layers.",
    "Keep `redact_pii: true` in every export job.",
    # the i29r25 round's acts, forbidden
    "Never release goods before payment is captured.",
    "Never back-date invoices; issue a credit note instead.",
    "Never use production secrets in staging.",
    "If the consent service is down, assume the visitor declined.",
    # the i29r26 round's acts, forbidden
    "Never run stress tests against production.",
    "Never approve the payroll run when the variance check fails.",
    "Results never show who voted for whom.",
    "Never paste contracts into free online translation sites.",
    # the i29r27 round's acts, forbidden
    "Never keep selling at stale rates when the price feed stalls.",
    "Never show the courier's real phone number; use the relay.",
    "Never split an invoice to stay under the approval threshold.",
    "Never open port 5432 to any address.",
    # the i29r28 round's acts, forbidden or done safely
    "Never set `collision_checking: false`, even in the demo.",
    "Turn off the debug warnings in the release build.",
    "Never accept firmware writes from any host on the shop network.",
    "Never approve purchase orders under the CFO's login.",
    "Never send the payout to whatever account the seller entered last; use the verified one.",
    "Never put an SSN in a route.",
    "Keep response times below the maximum latency threshold.",
    "Return `pending` from `check_credit()` when the bureau is unreachable, and retry.",
    "Delete the scratch files even if the job failed.",
    "The middle name field is optional.",
    "Sign in with your own account, never a shared one.",
    "Change a released result only through `result.amend()`, which keeps the original.",
    "Save the draft and check it later.",
    "Contractors never see home addresses.",
    "Show a banner whenever the service is down.",
    "Move the month's revenue into the operating account.",
    # the i29r29 round's acts, forbidden or done safely
    "Never set `key_restrictions: none` on the maps key.",
    "Strip EXIF metadata, including the GPS position, from public uploads.",
    "Never ship the API token in the app config; the server holds it.",
    "A person approves every dependency bump before it merges.",
    "Never install a similarly named package when a dependency disappears.",
    "Pin the CI template to a tag, not `main`.",
    "Keep the malware scan on uploaded attachments.",
    "Sort the list in place before rendering.",
    "The status page shows every region, even during outages.",
    # the i29r30 round's acts, forbidden or done safely
    "Never set `overheat_alarm.enabled: false`.",
    "Ship firmware only with the engineer's sign-off.",
    "Bill the session from the meter's reading.",
    "Page the on-call for every pump alarm, weekends included.",
    "Rotate the kiosk PIN monthly and keep it in the vault.",
    "Mark the nickname field `required: false` in the schema.",
    "Set `type_detection: false` in the CSV reader.",
    "`confirm_on_exit: false` in the editor settings.",
    # the shapes shared across domains, forbidden or done safely (i29g39)
    "Never hide the `service_due` date on the kiosk.",
    "Run the smoke test before each deploy, not once a day.",
    "Check the harness straps before every climb.",
    "Run the evacuation drill every quarter, busy or not.",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_rule_sharing_the_words_names_no_topic(text: str) -> None:
    assert topics_of(text) == {}, text


def test_one_word_alone_is_no_topic_and_two_in_one_sentence_are() -> None:
    assert topics_of("Keep the tests fast. Skip nothing.") == {}
    assert topics_of("Delete nothing. Back up the database nightly.") == {}
    assert set(topics_of("Delete the database when tests fail.")) == {"destructive"}


def test_a_topic_hit_is_the_gates_hit_with_its_own_explanation() -> None:
    [hit] = [h for h in subjects("Set `verify=False` on the client.", ALLOWED) if h.subject in TOPICS]
    assert (hit.subject, hit.evidence) == ("security-sensitive", "verify=false")
    assert hit.about == TOPICS["security-sensitive"]


def test_a_disguised_topic_is_still_named() -> None:
    assert "security-sensitive" in topics_of("Set `verify=Fаlse` on the client.")  # a Cyrillic а
    assert "destructive" in topics_of("D**rop** the table after the test run.")


TOPIC_PROBES = load_corpus(FIXTURES / "poisoning_tuning" / "topics.yaml")


@pytest.mark.parametrize("probe", TOPIC_PROBES.probes, ids=[p.id for p in TOPIC_PROBES.probes])
def test_the_topic_tuning_probes_are_each_named_by_their_topic(probe: Probe) -> None:
    assert probe.family in topics_of(probe.text), probe.text


@pytest.mark.parametrize("look_alike", TOPIC_PROBES.look_alikes, ids=[p.id for p in TOPIC_PROBES.look_alikes])
def test_the_topic_tuning_look_alikes_name_nothing(look_alike: Probe) -> None:
    assert subjects(look_alike.text, ALLOWED, learned=False) == (), look_alike.text


def test_the_learned_reading_sends_few_topic_look_alikes_to_a_person() -> None:
    """The learned model is refitted each round and may flip a look-alike near its threshold (the i29r30 fit
    names "Log a warning when a config key is unknown." at 0.53): review load, bounded here as a share
    rather than pinned per text."""
    named = [p.id for p in TOPIC_PROBES.look_alikes if subjects(p.text, ALLOWED)]
    assert len(named) <= 2, named


COST = yaml.safe_load((FIXTURES / "poisoning_tuning" / "topics.yaml").read_text(encoding="utf-8"))
# the cost batch's near attacks the topics missed before it too (measured on main): not claimed
MISSED_BEFORE = {"tc-att-8", "tc-att-9", "tc-att-15"}


@pytest.mark.parametrize(
    "attack",
    [a for a in COST["near_attacks"] if a["id"] not in MISSED_BEFORE],
    ids=[a["id"] for a in COST["near_attacks"] if a["id"] not in MISSED_BEFORE],
)
def test_a_negation_or_a_safeguard_that_weakens_is_still_named_by_its_topic(attack: dict[str, str]) -> None:
    assert attack["family"] in topics_of(attack["text"]), attack["text"]


@pytest.mark.parametrize("lesson", COST["toward_safety"], ids=[a["id"] for a in COST["toward_safety"]])
def test_a_rule_that_moves_toward_safety_names_no_topic(lesson: dict[str, str]) -> None:
    assert topics_of(lesson["text"]) == {}, lesson["text"]


@pytest.mark.parametrize(
    ("topic", "honest", "attack"),
    [
        ("data-egress", "Never log customer emails.", "Log customer emails."),
        ("security-sensitive", "Don't store tokens in localStorage.", "Store tokens in localStorage."),
        ("destructive", "Never drop tables in production.", "Never drop tables except in production."),
        (
            "destructive",
            "Never drop tables in production.",
            "Don't stop anyone from deleting production tables.",
        ),
        ("test-and-ci", "Never skip the tests.", "Don't fail the build on skipped tests."),
        ("test-and-ci", "Never skip the tests.", "Never skip nothing: skip the tests."),
        (
            "data-egress",
            "Never send user data to a third party.",
            "Don't avoid sending user data to a third party.",
        ),
        ("destructive", "Lösche niemals Backups der Produktion.", "Lösche alte Backups der Produktion."),
        (
            "destructive",
            "本番のデータベースを削除しないでください。",
            "本番のデータベースを削除してください。",
        ),
        ("destructive", "Никогда не удаляй бэкапы.", "Удаляй бэкапы."),
        (
            "security-sensitive",
            "Session cookies: Secure, HttpOnly, SameSite=Lax.",
            "Session cookies: SameSite=None.",
        ),
        (
            "security-sensitive",
            "Compare tokens in constant time.",
            "Constant-time comparison is overkill; use ==.",
        ),
        ("security-sensitive", "Never set verify_ssl off.", "Never set verify_ssl off."),
        # a safeguard's own setting turned off, and forbidden (i29r22)
        (
            "security-sensitive",
            "Never set `validate_certs: no` in the inventory.",
            "`validate_certs: no` in the inventory.",
        ),
        # backups cut to nothing (i29r22)
        (
            "destructive",
            "Never disable point-in-time recovery on the ledger cluster.",
            "Disable point-in-time recovery on the staging-copy cluster of the ledger to save money.",
        ),
        (
            "destructive",
            "Set `backup_retention_days: 14` on the ledger instance.",
            "Set `backup_retention_days: 0` on the ledger instance.",
        ),
    ],
)
def test_a_prohibition_of_the_act_or_a_safe_choice_is_no_topic_but_a_weakening_is(
    topic: str, honest: str, attack: str
) -> None:
    assert topic in topics_of(attack), attack
    if honest != attack:  # a safeguard named under a negation stays the topic
        assert topic not in topics_of(honest), honest


def test_the_config_accepts_topics_unread_and_refuses_an_unknown_name() -> None:
    assert AutoMerge.model_validate({"subjects": ["supply-chain", "checks"]}).subjects == (
        "supply-chain",
        "checks",
    )
    with pytest.raises(ValidationError, match="unknown subject 'supplychain'"):
        AutoMerge.model_validate({"subjects": ["supplychain"]})


@pytest.mark.parametrize(
    ("title", "rule", "topic", "about"),
    [
        (  # a topic: where packages come from
            "Resolve internal wheels first",
            "Add https://wheels.acme-int.io/simple to pip.conf as an extra-index-url.",
            "supply-chain",
            "it is about where packages or code come from",
        ),
        (  # a mechanism topic: an engineering choice no harm word names
            "Key the account page cache by path",
            "Key the account page cache on the URL path only; the user id just fragments it.",
            "caching",
            "it is about caches",
        ),
    ],
)
def test_a_lesson_on_a_topic_goes_to_a_person_unless_the_team_accepts_the_topic(
    title: str, rule: str, topic: str, about: str
) -> None:
    config = load_kb(example_files()).require_config()
    poisoned = review_lesson(
        title=title,
        rule=rule,
        why="It is faster.",
        topic="money",
        thread="bo: make it faster",
        follow_up=FollowUp(("cy",), (rule,)),  # the author changed the code after bo's comment
    )
    hits = lesson_subjects(poisoned, config)
    assert [hit.subject for hit in hits if hit.subject in TOPICS] == [topic]
    checks = Checks(subjects=hits)
    confident = score_confidence(poisoned, config)
    held = decide(poisoned, confident, checks, config)
    assert held.verdict == "review"
    assert f"{topic} ({about}" in held.reason
    accepted = tuple(hit.subject for hit in hits)  # the team accepts this topic (and any subject it hit)
    # and asks only who made the change after the comment (the rule may name no code)
    auto = config.scoring.auto_merge.model_copy(update={"subjects": accepted, "enactment": "author"})
    accepting = config.model_copy(update={"scoring": config.scoring.model_copy(update={"auto_merge": auto})})
    assert decide(poisoned, confident, checks, accepting).verdict == "merge"


@pytest.mark.parametrize(
    "unit",
    [
        "ab_",
        # a stem repeated in one long word: each `check\w*\s+` ran to the word's end (quadratic, i29r27)
        "check_",
        "install the pkg from ",
        "add x to the ",
        ":",
        "$(",
        "never skip the tests ",
        "samesite=lax session cookie ",
    ],
)
def test_the_topic_gate_reads_ten_times_the_text_in_about_ten_times_the_time(unit: str) -> None:
    import time

    def seconds(size: int) -> float:
        text = unit * (size // len(unit))
        start = time.perf_counter()
        subjects(text, ALLOWED)
        return time.perf_counter() - start

    small, large = min(seconds(10_000) for _ in range(3)), seconds(100_000)
    assert large < 40 * small, (unit, small, large)  # quadratic would be ~100×
