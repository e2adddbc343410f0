"""HTTP routes served by Django (the admin); /mcp is routed in asgi.py."""

from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView

admin.site.site_header = "LocalRouter"
admin.site.site_title = "LocalRouter admin"
admin.site.index_title = "Gateway administration"

urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("admin/", admin.site.urls),
]
