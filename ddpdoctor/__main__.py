"""`python -m ddpdoctor`: the same entry point as the `ddpdoctor` console script."""

import sys

from ddpdoctor.cli import main

if __name__ == "__main__":
    sys.exit(main())
