from sudya.edges.cli.entry import main

main()
