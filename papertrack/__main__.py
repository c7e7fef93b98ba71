from papertrack.cli import main

main()
