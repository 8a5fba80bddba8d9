from sudya.cli.entry import main

main()
