"""The public "Suggest a correction" form for one edge (works without JavaScript): CSRF-protected,
rate-limited per client address (rlscaling.client_address), with a honeypot field and a minimum
time between showing the form and sending it. Nothing a reader sends is shown publicly."""

import logging
import time

from django import forms
from django.conf import settings
from django.core import signing
from django.core.cache import cache, caches
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from rlscaling.caching import CACHE_ERRORS, reads_query
from rlscaling.client_address import client_address

from .corrections import CorrectionSuggestion
from .models import Citation

logger = logging.getLogger(__name__)

SIGNING_SALT = "citations.correction-form"


def setting(name, default):
    return getattr(settings, name, default)


def form_token():
    """When the form was shown, signed: sent back in a hidden field."""
    return signing.TimestampSigner(salt=SIGNING_SALT).sign(str(time.time()))


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
            self.initial["token"] = form_token()

    @property
    def is_spam(self):
        return bool(self.data.get("website"))

    def clean_token(self):
        """Sent at least CORRECTION_FORM_MIN_SECONDS after the form was shown (robots send
        at once), and the same day."""
        try:
            shown = float(
                signing.TimestampSigner(salt=SIGNING_SALT).unsign(
                    self.cleaned_data["token"], max_age=24 * 3600
                )
            )
        except signing.SignatureExpired:
            raise forms.ValidationError("This form is over a day old: send it again.") from None
        except (signing.BadSignature, ValueError):
            raise forms.ValidationError(
                "This form did not come from this site: reload it."
            ) from None
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
    limit = setting("CORRECTION_SUGGESTIONS_PER_HOUR", 5)
    key = f"corrections:sent:{client_address(request)}:{int(time.time() // 3600)}"
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
    if not form.is_valid():
        context["form"] = form
        return render(request, "citations/suggest_correction.html", context, status=400)
    form.save()
    return redirect(f"{request.path}?sent=1")
