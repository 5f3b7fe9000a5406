from genres_site.cli import main

main()
