USE power;
