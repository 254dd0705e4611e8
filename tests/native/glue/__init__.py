"""Test-only Python glue to the native engine (issue 47: moved out of the shipped package):
the differential tests' harnesses and twins of the Python modules, reaching the compiled
module's test-only bindings and the bridge's inner modules (``rules.bridge.*``). Nothing
shipped imports them; the bridge's public interface is ``rules.bridge.__all__``."""
