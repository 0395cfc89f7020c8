import sys

from flinklab.gateway.server import main

sys.exit(main())
