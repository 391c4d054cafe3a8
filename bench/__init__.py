"""The benchmark, the soak and the server harness they share with the tests."""
