"""Make sure an admin user exists; print how to log in when one is created."""

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create the 'admin' superuser if no superuser exists. Its password comes from "
        "LOCALROUTER_ADMIN_PASSWORD, else it is generated and printed once."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--url", help="where the admin will be (default: from HOST and PORT)")

    def handle(self, *args, **options) -> None:
        users = get_user_model()
        if users.objects.filter(is_superuser=True).exists():
            return
        password = os.environ.get("LOCALROUTER_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        users.objects.create_superuser("admin", "", password)
        url = options["url"] or f"http://{settings.SERVE_HOST}:{settings.SERVE_PORT}/admin/"
        self.stdout.write(f"Created the admin user. Log in at {url} with")
        self.stdout.write("  username: admin")
        if os.environ.get("LOCALROUTER_ADMIN_PASSWORD"):
            self.stdout.write("  password: (the value of LOCALROUTER_ADMIN_PASSWORD)")
        else:
            self.stdout.write(f"  password: {password}   (shown once; change it in the admin)")
