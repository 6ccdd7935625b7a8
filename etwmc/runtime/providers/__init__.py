"""Providers that etwmc ships, compiled from the manifests beside their modules."""
