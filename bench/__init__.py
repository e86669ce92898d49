"""The benchmarks: ``manage.py loadbench``, ``soak`` and the rest, numbers rather than tests.

Installed by the development settings only (DEBUG on); production never loads them.
"""
