"""Claims and the four-step diagnosis. Every step is a GET page whose query string holds the
reader's whole selection, so each step works without JavaScript and can be shared."""

from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_safe

from bottlenecks.models import Layer
from evidence.diagnosis import STEPS, Diagnosis, DiagnosisForm
from evidence.models import Claim, EvidenceStatus
from pagecache.caching import reads_query

DIAGNOSE_TEMPLATES = {
    "diagnose": "bottlenecks/diagnose/signals.html",
    "diagnose-layers": "bottlenecks/diagnose/layers.html",
    "diagnose-tests": "bottlenecks/diagnose/tests.html",
    "diagnose-plan": "bottlenecks/diagnose/plan.html",
}


@reads_query("layer", "status")
@require_safe
def claim_list(request):
    """Every published claim by evidence status, optionally for one layer or one status."""
    claims = Claim.objects.for_display()
    layers = Layer.objects.published()
    layer_slug, status = request.GET.get("layer", ""), request.GET.get("status", "")
    errors = []
    if layer_slug:
        if not layers.filter(slug=layer_slug).exists():
            errors.append(f"There is no layer “{layer_slug}”.")
        claims = claims.filter(layers__slug=layer_slug)
    if status:
        if status not in EvidenceStatus.values:
            errors.append(f"“{status}” is not an evidence status.")
        claims = claims.filter(evidence_status=status)
    context = {
        "nav": "bottlenecks",
        "claims": [] if errors else list(claims),
        "errors": errors,
        "layers": layers,
        "statuses": EvidenceStatus.choices,
        "selected": {"layer": layer_slug, "status": status},
        "today": timezone.localdate(),  # a card says whether its review is overdue
    }
    return render(request, "bottlenecks/claim_list.html", context, status=400 if errors else 200)


def _step_context(step, form, diagnosis=None):
    query = diagnosis.query_string() if diagnosis else ""
    return {
        "nav": "bottlenecks",
        "form": form,
        "diagnosis": diagnosis,
        "query": query,
        "step": step,
        "steps": [
            {"name": name, "title": title, "url": f"{reverse(f'evidence:{name}')}?{query}"}
            for name, title in STEPS
        ],
    }


def _canonical_redirect(request, diagnosis):
    """A valid selection spelled another way (signals in another order, empty setting fields
    as a browser submits them, unknown parameters) redirects to its one stable address."""
    query = diagnosis.query_string()
    if request.GET.urlencode() != query:
        return HttpResponseRedirect(f"{request.path}?{query}")
    return None


def _render_step(request, step):
    """Steps 2 to 4: the selection must be valid and name a signal, else step 1 with the
    errors, answered 400. With no selection at all, the reader starts at step 1."""
    if not request.GET:
        return HttpResponseRedirect(reverse("evidence:diagnose"))
    form = DiagnosisForm(request.GET, require_signals=True)
    if not form.is_valid():
        context = _step_context("diagnose", form)
        return render(request, DIAGNOSE_TEMPLATES["diagnose"], context, status=400)
    diagnosis = Diagnosis.from_form(form)
    if redirect := _canonical_redirect(request, diagnosis):
        return redirect
    return render(request, DIAGNOSE_TEMPLATES[step], _step_context(step, form, diagnosis))


@reads_query(DiagnosisForm)
@require_safe
def diagnose_signals(request):
    """Step 1, state the plateau: pick the signals observed, and optionally the setting."""
    form = DiagnosisForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return render(
            request, DIAGNOSE_TEMPLATES["diagnose"], _step_context("diagnose", form), status=400
        )
    if form.is_bound:
        form = form.with_layer_signals()
        form.is_valid()
    return render(request, DIAGNOSE_TEMPLATES["diagnose"], _step_context("diagnose", form))


@reads_query(DiagnosisForm)
@require_safe
def diagnose_layers(request):
    """Step 2, competing bottlenecks: layers ranked by the documented score, with reasons."""
    return _render_step(request, "diagnose-layers")


@reads_query(DiagnosisForm)
@require_safe
def diagnose_tests(request):
    """Step 3, discriminating tests for the top layers, and the claims that bear on them."""
    return _render_step(request, "diagnose-tests")


@reads_query(DiagnosisForm)
@require_safe
def diagnose_plan(request):
    """Step 4, one pressure at a time: the plan, printable, with its Markdown export."""
    return _render_step(request, "diagnose-plan")


def _export(request, render_plan, filename):
    """The plan for tools and documents: a bad selection is a 400 saying why, another
    spelling redirects to the stable address."""
    if not request.GET:
        return HttpResponseRedirect(reverse("evidence:diagnose"))
    form = DiagnosisForm(request.GET, require_signals=True)
    if not form.is_valid():
        errors = [e for errors in form.errors.values() for e in errors]
        return render_plan(None, None, errors)
    diagnosis = Diagnosis.from_form(form)
    if redirect := _canonical_redirect(request, diagnosis):
        return redirect
    context = _step_context("diagnose-plan", form, diagnosis)
    context["plan_url"] = request.build_absolute_uri(context["steps"][3]["url"])
    context["base"] = request.build_absolute_uri("/").rstrip("/")
    response = render_plan(diagnosis, context, None)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@reads_query(DiagnosisForm)
@require_safe
def diagnose_plan_markdown(request):
    """The plan as Markdown with links, to paste into a design doc."""

    def render_plan(diagnosis, context, errors):
        if errors is not None:
            return HttpResponse(
                "# Not a valid selection\n\n" + "".join(f"- {e}\n" for e in errors),
                status=400,
                content_type="text/markdown; charset=utf-8",
            )
        return HttpResponse(
            render_to_string("bottlenecks/diagnose/plan.md", context, request=request),
            content_type="text/markdown; charset=utf-8",
        )

    return _export(request, render_plan, "rl-scaling-diagnosis.md")


@reads_query(DiagnosisForm)
@require_safe
def diagnose_plan_json(request):
    """The same plan as JSON, for tools: the ranking with its ties, the chosen test with each
    outcome and the layer it points to, and the evidence with its sources."""

    def render_plan(diagnosis, context, errors):
        if errors is not None:
            return JsonResponse({"errors": errors}, status=400)
        data = diagnosis.as_data(request.build_absolute_uri)
        data["plan_url"] = context["plan_url"]
        data["markdown_url"] = request.build_absolute_uri(
            f"{reverse('evidence:diagnose-plan-markdown')}?{context['query']}"
        )
        return JsonResponse(data, json_dumps_params={"ensure_ascii": False, "indent": 2})

    return _export(request, render_plan, "rl-scaling-diagnosis.json")
