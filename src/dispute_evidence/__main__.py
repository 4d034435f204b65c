from dispute_evidence.cli import main

main()
