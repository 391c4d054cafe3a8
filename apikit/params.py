"""Query parameters: the ones each API view reads, and a 400 for any other.

The API is strict: a parameter an endpoint does not read (a misspelt filter, `utm_source`,
`fields` on a write) is refused with a 400 naming the parameters it does read and the closest
match, instead of being silently ignored and answering as if it had not been sent. The HTML
pages stay lenient (tracking parameters from links shared elsewhere keep working there).

The page cache (pagecache/caching.py) keys API answers by the same list of parameters: it is
handed `view_query_parameters` at start-up (apikit/apps.py).
"""

import difflib
import functools

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import exceptions
from rest_framework.settings import api_settings

from pagecache.caching import filterset_parameters

SPARSE_PARAMETERS = ("fields", "omit")
GROUP_BY_PARAMETER = "group_by"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _backends(view_class, actions):
    backends = getattr(view_class, "filter_backends", ())
    for method_name in dict(actions or ()).values():  # an @action may drop the filters
        method = getattr(view_class, method_name, None)
        backends = getattr(method, "kwargs", {}).get("filter_backends", backends)
    return backends


def _action_names(actions):
    return set(dict(actions or ()).values())


@functools.cache
def view_query_parameters(view_class, actions=None, safe=True):
    """The query parameter names `view_class` reads, for the viewset `actions` (a sorted tuple
    of (method, action) pairs, None for a plain view) and a safe (GET/HEAD/OPTIONS) or unsafe
    method. Sparse fieldsets and group_by only shape what a GET answers."""
    names = {api_settings.URL_FORMAT_OVERRIDE or "format"}
    names |= set(getattr(view_class, "cache_query_parameters", ()))
    action_names = _action_names(actions)
    backends = _backends(view_class, actions)
    filterset_class = getattr(view_class, "filterset_class", None)
    if filterset_class is not None and any(
        issubclass(backend, DjangoFilterBackend) for backend in backends
    ):
        names |= filterset_parameters(filterset_class)
    for backend in backends:
        for attribute in ("search_param", "ordering_param"):
            if hasattr(backend, attribute):
                names.add(getattr(backend, attribute))
    lists = "list" in action_names if actions else True
    pagination = getattr(view_class, "pagination_class", None)
    if pagination is not None and lists:
        for attribute in ("page_query_param", "page_size_query_param", "cursor_query_param"):
            if getattr(pagination, attribute, None):
                names.add(getattr(pagination, attribute))
    if safe and getattr(view_class, "sparse_fieldsets", False):
        names.update(SPARSE_PARAMETERS)
    if safe and lists and getattr(view_class, "group_by_fields", None):
        names.add(GROUP_BY_PARAMETER)
    return frozenset(names)


def parameters_for_view(view, method):
    actions = getattr(view, "action_map", None)
    actions = tuple(sorted(actions.items())) if actions else None
    return view_query_parameters(type(view), actions, reads(view, method))


def reads(view, method):
    """Whether `method` only reads on this view (a POST may: the batch lookup)."""
    return method in SAFE_METHODS or (method == "POST" and getattr(view, "post_is_a_read", False))


def unknown_parameter_errors(names, known):
    """{name: [message]} for each of `names` not in `known`, with a suggestion where one is
    close."""
    errors = {}
    for name in names:
        if name in known:
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
        hint = f"Did you mean “{close[0]}”? " if close else ""
        errors[name] = [
            f"Unknown query parameter. {hint}This endpoint reads: {', '.join(sorted(known))}."
        ]
    return errors


def repeated_parameter_errors(query_params, known):
    """{name: [message]} for a parameter sent more than once (`page_size=1&page_size=500`):
    every one the API reads takes one value (sparse fieldsets join theirs), and answering with
    one of them would be a guess."""
    return {
        name: [f"Give “{name}” once (it was given {len(values)} times)."]
        for name, values in query_params.lists()
        if len(values) > 1 and name in known and name not in SPARSE_PARAMETERS
    }


def search_parameters(view):
    """The free-text parameters of `view`, where an empty value is an empty search."""
    return {
        getattr(backend, "search_param", None) for backend in getattr(view, "filter_backends", ())
    }


def empty_parameter_errors(query_params, known, free_text):
    """{name: [message]} for a parameter it reads sent without a value (`status=`): no choice,
    number or slug the schema allows is empty, and answering as if it were absent would be a
    guess. A free-text search may be empty."""
    return {
        name: [f"Give “{name}” a value, or leave it out."]
        for name, values in query_params.lists()
        if name in known and name not in free_text and any(value == "" for value in values)
    }


class StrictQueryParametersMixin:
    """A 400 for any query parameter the view does not read (see the module docstring)."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        known = parameters_for_view(self, request.method)
        errors = unknown_parameter_errors(request.query_params.keys(), known)
        errors.update(repeated_parameter_errors(request.query_params, known))
        errors.update(empty_parameter_errors(request.query_params, known, search_parameters(self)))
        if errors:
            raise exceptions.ValidationError(errors)
