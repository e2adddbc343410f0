"""Make sure an admin user exists; print how to log in when one is created."""

import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create the 'admin' superuser if no superuser exists. Its password comes from "
        "LOCALROUTER_ADMIN_PASSWORD, else it is generated and printed once."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--url", default="http://127.0.0.1:8000/admin/", help="where the admin will be"
        )

    def handle(self, *args, **options) -> None:
        users = get_user_model()
        if users.objects.filter(is_superuser=True).exists():
            return
        password = os.environ.get("LOCALROUTER_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        users.objects.create_superuser("admin", "", password)
        self.stdout.write(f"Created the admin user. Log in at {options['url']} with")
        self.stdout.write("  username: admin")
        if os.environ.get("LOCALROUTER_ADMIN_PASSWORD"):
            self.stdout.write("  password: (the value of LOCALROUTER_ADMIN_PASSWORD)")
        else:
            self.stdout.write(f"  password: {password}   (shown once; change it in the admin)")
