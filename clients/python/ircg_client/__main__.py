"""python3 -m ircg_client"""

import sys

from .cli import main

sys.exit(main())
