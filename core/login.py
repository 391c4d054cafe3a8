"""Sign-in bounds shared by the admin login and the API token endpoint: a username longer than
any account's is refused by the form, and never reaches django-axes' 255-character column."""

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import get_user_model
from django.core.validators import MaxLengthValidator

USERNAME_MAX_LENGTH = get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD).max_length


class BoundedAdminAuthenticationForm(AdminAuthenticationForm):
    def __init__(self, request=None, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        # Django sets max_length on this field after building it, so nothing enforces it.
        self.fields["username"].validators.append(MaxLengthValidator(USERNAME_MAX_LENGTH))
        self.fields["password"].validators.append(MaxLengthValidator(4096))


def axes_username(request, credentials=None):
    """django-axes' AXES_USERNAME_CALLABLE: the submitted username, cut to what an account can
    have (whatever door a login attempt comes through)."""
    if credentials:
        username = credentials.get("username")
    else:
        data = getattr(request, "data", None) or request.POST
        username = data.get("username") if hasattr(data, "get") else None
    if not isinstance(username, str):
        return username
    return username[:USERNAME_MAX_LENGTH]
