# The plugin itself comes from the installed package's pytest11 entry point (python/test.sh),
# so these tests exercise the package as users get it. pytester runs inner pytest sessions.
pytest_plugins = ["pytester"]
