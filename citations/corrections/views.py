"""The public "Suggest a correction" form for one edge (works without JavaScript): CSRF-protected,
rate-limited per client address (core.client_address), with a honeypot field and a minimum
time between showing the form and sending it. Nothing a reader sends is shown publicly."""

import logging
import secrets
import time

from django import forms
from django.conf import settings
from django.core import signing
from django.core.cache import cache, caches
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from citations.corrections.models import CorrectionSuggestion
from citations.models import Citation
from core.client_address import client_address
from pagecache.caching import CACHE_ERRORS, reads_query

logger = logging.getLogger(__name__)

SIGNING_SALT = "citations.correction-form"


def setting(name, default):
    return getattr(settings, name, default)


def form_token(citation):
    """One token per form shown: the edge, a random nonce and when it was shown, signed; sent
    back in a hidden field, accepted once (`spend_token`), for that edge, for
    CORRECTION_FORM_MAX_SECONDS."""
    value = f"{citation.pk}:{secrets.token_urlsafe(12)}:{time.time()}"
    return signing.TimestampSigner(salt=SIGNING_SALT).sign(value)


def spend_token(token):
    """True the first time `token` is spent, False after (counted in the shared cache; in local
    memory while it is unreachable)."""
    key = f"corrections:token:{token[-43:]}"
    for store in (cache, caches["local"]):
        try:
            return store.add(key, 1, setting("CORRECTION_FORM_MAX_SECONDS", 3600) + 60)
        except CACHE_ERRORS:
            logger.warning("Correction tokens: cache unreachable, counting locally")
    return True


class CorrectionSuggestionForm(forms.ModelForm):
    # Left empty by people (the field is hidden); filled in by form-filling robots.
    website = forms.CharField(required=False, label="Leave this field empty", max_length=200)
    token = forms.CharField(widget=forms.HiddenInput, max_length=200)

    class Meta:
        model = CorrectionSuggestion
        fields = ["suggested_role", "suggested_polarity", "reason", "email"]
        labels = {
            "suggested_role": "Suggested role",
            "suggested_polarity": "Suggested polarity",
            "reason": "Why (what the citing paper says)",
            "email": "Your e-mail (optional, only for a reply)",
        }
        widgets = {"reason": forms.Textarea(attrs={"rows": 5, "maxlength": 2000})}

    def __init__(self, *args, citation, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.citation = citation
        self.fields["suggested_role"].empty_label = "No change"
        self.fields["suggested_polarity"].empty_label = "No change"
        if not self.is_bound:
            self.initial["token"] = form_token(citation)

    @property
    def is_spam(self):
        return bool(self.data.get("website"))

    def clean_token(self):
        """Sent at least CORRECTION_FORM_MIN_SECONDS after the form was shown (robots send
        at once), within CORRECTION_FORM_MAX_SECONDS, for the edge it was shown for."""
        max_age = setting("CORRECTION_FORM_MAX_SECONDS", 3600)
        try:
            value = signing.TimestampSigner(salt=SIGNING_SALT).unsign(
                self.cleaned_data["token"], max_age=max_age
            )
            edge, _, shown = value.split(":")
            shown = float(shown)
        except signing.SignatureExpired:
            raise forms.ValidationError(
                "This form is too old: reload it and send it again."
            ) from None
        except (signing.BadSignature, ValueError):
            raise forms.ValidationError(
                "This form did not come from this site: reload it."
            ) from None
        if edge != str(self.instance.citation.pk):
            raise forms.ValidationError("This form was shown for another edge: reload it.")
        if time.time() - shown < setting("CORRECTION_FORM_MIN_SECONDS", 3):
            raise forms.ValidationError("That was very quick: please check the form and send it.")
        return self.cleaned_data["token"]

    def clean(self):
        data = super().clean()
        role, polarity = data.get("suggested_role"), data.get("suggested_polarity")
        edge = self.instance.citation
        if role is None and polarity is None:
            raise forms.ValidationError("Suggest a role, a polarity or both.")
        if role in (None, edge.role) and polarity in (None, edge.polarity):
            raise forms.ValidationError("That is how the edge is classified already.")
        return data


def within_rate_limit(request):
    """At most CORRECTION_SUGGESTIONS_PER_HOUR sends per client address and hour (counted in
    the shared cache; in local memory while it is unreachable, as the API's throttles do)."""
    hour = int(time.time() // 3600)
    per_address = _counted(
        f"corrections:sent:{client_address(request)}:{hour}",
        setting("CORRECTION_SUGGESTIONS_PER_HOUR", 5),
    )
    # Every address together: many addresses (one token each) cannot flood the editors' queue.
    return per_address and _counted(
        f"corrections:sent:all:{hour}", setting("CORRECTION_SUGGESTIONS_PER_HOUR_TOTAL", 60)
    )


def _counted(key, limit):
    """Count one more under `key` this hour; whether the count is still within `limit`."""
    for store in (cache, caches["local"]):
        try:
            store.add(key, 0, 3700)
            try:
                return store.incr(key) <= limit
            except ValueError:  # expired between add and incr
                return True
        except CACHE_ERRORS:
            logger.warning("Correction rate limit: cache unreachable, counting locally")
    return True


@reads_query("sent")
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def suggest_correction(request, pk):
    citation = get_object_or_404(
        Citation.objects.public().select_related("citing_paper", "cited_paper", "role", "polarity"),
        pk=pk,
    )
    context = {"nav": "research", "citation": citation, "sent": "sent" in request.GET}
    if request.method != "POST":
        context["form"] = CorrectionSuggestionForm(citation=citation)
        return render(request, "citations/suggest_correction.html", context)
    if not within_rate_limit(request):
        context["limited"] = True
        return render(request, "citations/suggest_correction.html", context, status=429)
    form = CorrectionSuggestionForm(request.POST, citation=citation)
    if form.is_spam:
        # Answered as a success, so a robot learns nothing; nothing is kept.
        return redirect(f"{request.path}?sent=1", permanent=False)
    if form.is_valid() and not spend_token(form.cleaned_data["token"]):
        form.add_error("token", "This form was already sent: reload the page to send another.")
    if not form.is_valid():
        context["form"] = form
        return render(request, "citations/suggest_correction.html", context, status=400)
    form.save()
    return redirect(f"{request.path}?sent=1")
