"""`make editor`: a staff account in the Editors group, with a password the validators accept."""

import getpass
import os

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from publishing.editors import EDITORS_GROUP, sync_editors_group


class Command(BaseCommand):
    help = (
        "Create an editor: a staff user in the Editors group. The password is asked for twice "
        "(or read from EDITOR_PASSWORD with --noinput) and must pass AUTH_PASSWORD_VALIDATORS."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--superuser", action="store_true", help="Also a superuser (may manage users)."
        )
        parser.add_argument(
            "--noinput", "--no-input", action="store_false", dest="interactive",
            help="Take --username, --email and the EDITOR_PASSWORD environment variable.",
        )  # fmt: skip

    def handle(self, *args, **options):
        try:
            self.create(**options)
        except (EOFError, KeyboardInterrupt):
            # Ctrl-D or Ctrl-C at a prompt, or no terminal to ask on.
            raise CommandError(
                "Stopped before the answers were complete. No editor was created."
            ) from None

    def create(self, *, username, email, superuser, interactive, **options):
        User = get_user_model()
        if interactive:
            username = username or input("Username: ").strip()
            email = email or input("Email (optional): ").strip()
        if not username:
            raise CommandError("A username is needed (--username).")
        if User.objects.filter(username=username).exists():
            raise CommandError(f"There is already a user {username!r}.")
        user = User(username=username, email=email, is_staff=True, is_superuser=superuser)
        password = self.ask_password(user) if interactive else self.env_password(user)
        user.set_password(password)
        with transaction.atomic():
            user.save()
            group = Group.objects.filter(name=EDITORS_GROUP).first() or sync_editors_group()
            user.groups.add(group)
        kind = "superuser and editor" if superuser else "editor"
        self.stdout.write(self.style.SUCCESS(f"Created {kind} {username!r}; sign in at /admin/."))

    def ask_password(self, user):
        while True:
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                self.stderr.write("The two passwords differ; try again.")
                continue
            try:
                validate_password(password, user)
            except ValidationError as error:
                self.stderr.write("\n".join(error.messages))
                continue
            return password

    @staticmethod
    def env_password(user):
        password = os.environ.get("EDITOR_PASSWORD", "")
        try:
            validate_password(password, user)
        except ValidationError as error:
            raise CommandError("EDITOR_PASSWORD: " + " ".join(error.messages)) from error
        return password
