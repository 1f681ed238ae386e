# Writes tickets.jsonl: support tickets, two criteria per ticket (queue, refund_requested).
# Kept beside the data so a reviewer can see how it was made; run: python3 data/make-tickets.py
import json

QUEUE = {"key": "queue", "question": "Which queue should handle this ticket?",
         "options": [{"id": "billing", "text": "Billing"}, {"id": "tech", "text": "Technical support"},
                     {"id": "account", "text": "Account and login"}, {"id": "shipping", "text": "Shipping and delivery"}]}
REFUND = {"key": "refund_requested", "question": "Is the customer asking for money back?",
          "options": [{"id": "yes", "text": "Yes"}, {"id": "no", "text": "No"}]}

# (ticket text, queue, refund) ; None = not yet labelled
TICKETS = [
  ("I was charged twice for my March invoice. Please refund the duplicate payment.", "billing", "yes"),
  ("The app crashes every time I open the settings page on Android 14.", "tech", "no"),
  ("I can't log in. The password reset email never arrives.", "account", "no"),
  ("My parcel has been stuck in transit for two weeks. Where is my delivery?", "shipping", "no"),
  ("The package arrived damaged and the lamp is broken. I want my money back.", "shipping", "yes"),
  ("Why did my subscription price go up? I never agreed to a new plan.", "billing", "no"),
  ("Sync stopped working after the last update; my files are not uploading.", "tech", "no"),
  ("Someone changed my account email without my permission. Please lock the account.", "account", "no"),
  ("I cancelled within the trial but was still billed. Refund the charge, please.", "billing", "yes"),
  ("Tracking says delivered but nothing was left at my door.", "shipping", "yes"),
  ("Two-factor codes are rejected even though the time on my phone is correct.", "account", "no"),
  ("The export to CSV produces an empty file with an error 500.", "tech", "no"),
  ("Please send me a copy of the invoice for my company's records.", "billing", "no"),
  ("The courier left my order at the wrong address. Can you re-ship it?", "shipping", "no"),
  ("The software is unusable since the update and I want to return it for a full refund.", "tech", "yes"),
  ("How do I merge two accounts that I created by mistake?", "account", "no"),
  ("My card was declined but the payment still shows as pending on my statement.", "billing", "no"),
  ("The order came with the wrong size. I'd like a refund rather than an exchange.", "shipping", "yes"),
  ("Notifications don't appear on my iPhone even though they are enabled.", "tech", "no"),
  ("I was locked out after too many attempts and the unlock link has expired.", "account", "no"),
  ("You charged my old card after I updated my payment method. Reverse that charge.", "billing", "yes"),
  ("Delivery was promised for Friday and it's now Tuesday. Any update on shipping?", "shipping", "no"),
  ("The dashboard shows a blank screen in Firefox but works in Chrome.", "tech", "no"),
  ("I want to delete my account and all my personal data.", "account", "no"),
  ("The annual plan renewed automatically and I didn't use it. Can I get the money back?", "billing", "yes"),
  ("Half of my order is missing from the box that arrived today.", "shipping", "yes"),
  ("Printing from the app cuts off the right margin of every page.", "tech", "no"),
  ("The login page says my username does not exist, but I used it yesterday.", "account", "no"),
  # unlabelled: triage has not reviewed these yet
  ("Hi, is there a student discount?", None, None),
  ("The app is slow and I was charged for premium which I never used.", None, None),
]

with open("tickets.jsonl", "w") as out:
    for i, (text, queue, refund) in enumerate(TICKETS, start=1):
        customer = f"customer-{i:03d}"
        for criterion, answer in ((QUEUE, queue), (REFUND, refund)):
            row = {"id": f"t-{i:03d}-{criterion['key']}", "state": text, "criterion": criterion, "group_id": customer}
            if answer is not None:
                row["answer_id"] = answer
            out.write(json.dumps(row) + "\n")
