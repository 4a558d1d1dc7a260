"""Test doubles kept out of the production modules: the scripted sampler
(:mod:`desktopapp.testing.sampler`), which the Monitor tab's demo mode also plays. Production
code imports nothing else from here."""
