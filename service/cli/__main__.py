"""`python -m service.cli`: the `stela` command line."""

import sys

from service.cli.main import main

sys.exit(main())
