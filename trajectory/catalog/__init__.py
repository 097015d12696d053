"""The suite catalog: registrations, trust, scaffolds and judge matrices."""
