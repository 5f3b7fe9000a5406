#!/usr/bin/env python
from genres_site.cli import main

if __name__ == "__main__":
    main()
